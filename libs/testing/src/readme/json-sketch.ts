/**
 * A JSON answer as the README shows it: JSON in which `…` stands for what is left out.
 * - `…` as an object member: the object has more members (without it the members are exactly these);
 * - `…` as the last array item: the array has more items after the ones shown;
 * - `…` as a value: any value.
 */
export type JsonSketch =
  | { kind: 'any' }
  | { kind: 'value'; value: string | number | boolean | null }
  | { kind: 'object'; members: Array<[string, JsonSketch]>; open: boolean }
  | { kind: 'array'; items: JsonSketch[]; open: boolean };

export const ELLIPSIS = '…';

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;
/** A quoted string; `JSON.parse` then checks its escapes and characters. */
const STRING = /^"(?:[^"\\]|\\.)*"/;

export class JsonSketchSyntaxError extends Error {
  constructor(message: string, offset: number, text: string) {
    super(`${message} at ${position(text, offset)}`);
    this.name = 'JsonSketchSyntaxError';
  }
}

export function parseJsonSketch(text: string): JsonSketch {
  const reader = new SketchReader(text);
  const sketch = reader.value();
  reader.skipSpace();
  if (!reader.atEnd()) reader.fail('unexpected text after the value');
  return sketch;
}

class SketchReader {
  private at = 0;
  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.at >= this.text.length;
  }

  skipSpace(): void {
    while (!this.atEnd() && /\s/.test(this.text[this.at])) this.at++;
  }

  fail(message: string): never {
    throw new JsonSketchSyntaxError(message, this.at, this.text);
  }

  value(): JsonSketch {
    this.skipSpace();
    const rest = this.text.slice(this.at);
    if (this.eat(ELLIPSIS)) return { kind: 'any' };
    if (this.eat('{')) return this.object();
    if (this.eat('[')) return this.array();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.eat(word)) return { kind: 'value', value };
    }
    const string = STRING.exec(rest);
    if (string) {
      const value = this.parsed(string[0]);
      this.at += string[0].length;
      return { kind: 'value', value: value as string };
    }
    const number = NUMBER.exec(rest);
    if (number) {
      this.at += number[0].length;
      return { kind: 'value', value: Number(number[0]) };
    }
    return this.fail('expected a JSON value or …');
  }

  private parsed(token: string): unknown {
    try {
      return JSON.parse(token);
    } catch {
      return this.fail('not a JSON string');
    }
  }

  private object(): JsonSketch {
    const members: Array<[string, JsonSketch]> = [];
    let open = false;
    this.list('}', () => {
      if (this.eat(ELLIPSIS)) {
        open = true;
        return;
      }
      const key = this.value();
      if (key.kind !== 'value' || typeof key.value !== 'string') this.fail('expected a member name');
      this.skipSpace();
      if (!this.eat(':')) this.fail('expected ":"');
      members.push([key.value as string, this.value()]);
    });
    return { kind: 'object', members, open };
  }

  private array(): JsonSketch {
    const items: JsonSketch[] = [];
    let open = false;
    this.list(']', () => {
      if (open) this.fail('… may only end an array');
      if (this.eat(ELLIPSIS)) open = true;
      else items.push(this.value());
    });
    return { kind: 'array', items, open };
  }

  /** Comma-separated entries up to `close`. */
  private list(close: string, entry: () => void): void {
    this.skipSpace();
    if (this.eat(close)) return;
    for (;;) {
      this.skipSpace();
      entry();
      this.skipSpace();
      if (this.eat(close)) return;
      if (!this.eat(',')) this.fail(`expected "," or "${close}"`);
    }
  }

  private eat(token: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(token, this.at)) return false;
    this.at += token.length;
    return true;
  }
}

function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}
