// The part of the browser's DOM the report page's script uses, declared here: the project compiles
// for Node (no DOM lib), and turning the DOM lib on for one file would turn it on for all of them.

/** A mouse or wheel event. */
export interface PageMouseEvent {
  readonly clientX: number;
  readonly clientY: number;
  readonly button: number;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly shiftKey: boolean;
  readonly deltaY: number;
  readonly key: string;
  preventDefault(): void;
}

/** A box in viewport pixels. */
export interface PageRect {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** An element. */
export interface PageElement {
  textContent: string | null;
  hidden: boolean;
  scrollTop: number;
  readonly clientWidth: number;
  readonly clientHeight: number;
  readonly style: { [property: string]: string };
  readonly classList: { toggle(name: string, on: boolean): void };
  setAttribute(name: string, value: string): void;
  getBoundingClientRect(): PageRect;
  addEventListener(
    type: string,
    listener: (event: PageMouseEvent) => void,
    options?: { passive?: boolean },
  ): void;
  focus(): void;
}

/** 2D drawing on a canvas. */
export interface PageContext2D {
  fillStyle: string;
  strokeStyle: string;
  lineWidth: number;
  font: string;
  textBaseline: string;
  textAlign: string;
  globalAlpha: number;
  setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void;
  clearRect(x: number, y: number, w: number, h: number): void;
  fillRect(x: number, y: number, w: number, h: number): void;
  strokeRect(x: number, y: number, w: number, h: number): void;
  fillText(text: string, x: number, y: number, maxWidth?: number): void;
  beginPath(): void;
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  closePath(): void;
  arc(x: number, y: number, r: number, start: number, end: number): void;
  rect(x: number, y: number, w: number, h: number): void;
  fill(): void;
  stroke(): void;
  clip(): void;
  save(): void;
  restore(): void;
  setLineDash(segments: number[]): void;
}

/** A canvas element. */
export interface PageCanvas extends PageElement {
  width: number;
  height: number;
  getContext(kind: '2d'): PageContext2D | null;
}

/** The document. */
export interface PageDocument {
  getElementById(id: string): PageElement | null;
  addEventListener(type: string, listener: (event: PageMouseEvent) => void): void;
}

/** The window, with the handle the page leaves for tests and curious users. */
export interface PageWindow {
  readonly devicePixelRatio: number;
  readonly innerHeight: number;
  addEventListener(type: string, listener: () => void): void;
  requestAnimationFrame(callback: () => void): number;
  recourseReport?: unknown;
}
