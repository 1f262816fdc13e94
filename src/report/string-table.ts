/** Texts stored once each; a value is referred to by its index. */
export class StringTable {
  readonly strings: string[] = [];
  readonly #index = new Map<string, number>();

  /** The index of `text`, adding it when new. */
  id(text: string): number {
    let i = this.#index.get(text);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(text);
      this.#index.set(text, i);
    }
    return i;
  }

  /** The index of `text`, or -1 when it is undefined. */
  optional(text: string | undefined): number {
    return text === undefined ? -1 : this.id(text);
  }
}
