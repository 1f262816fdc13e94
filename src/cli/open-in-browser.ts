import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/**
 * Opens `file` in the user's browser: `$BROWSER` when set, else `open` (macOS), `cmd /c start`
 * (Windows) or `xdg-open`. Resolves once the opener started (it is not waited for) with undefined,
 * or with the reason it could not start.
 *
 * @example
 * const problem = await openInBrowser('report.html', process.env)
 */
export function openInBrowser(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  const url = pathToFileURL(file).href;
  const browser = env.BROWSER?.trim();
  const [command, args] =
    browser !== undefined && browser !== ''
      ? [browser, [url]]
      : process.platform === 'darwin'
        ? ['open', [url]]
        : process.platform === 'win32'
          ? ['cmd', ['/c', 'start', '""', url]]
          : ['xdg-open', [url]];
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: 'ignore',
      detached: true,
      env: { ...process.env, ...env },
    });
    child.once('error', (error: NodeJS.ErrnoException) =>
      resolve(`${command}: ${error.code === 'ENOENT' ? 'not found' : error.message}`),
    );
    child.once('spawn', () => {
      child.unref();
      resolve(undefined);
    });
  });
}
