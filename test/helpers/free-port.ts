import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 nobody listens on right now (for a test's own server). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
