import type { RecordedResponse } from './openapi-conformance';

const JSON_TYPES = new Set(['application/json', 'application/problem+json']);

/**
 * Keeps what a test received from the gateway, for the conformance check at the stack's end. The
 * body is read from a clone, so the test's own reading is untouched; a body that could not be read
 * (the connection was cut, the test canceled it) is left out rather than guessed.
 */
export class ResponseRecorder {
  private readonly pending: Array<Promise<RecordedResponse | undefined>> = [];

  record(method: string, path: string, res: Response): void {
    const contentType = res.headers.get('content-type')?.split(';')[0].trim().toLowerCase() ?? null;
    const base = { method: method.toUpperCase(), path: path.split('?')[0], status: res.status, contentType };
    if (contentType === null || !JSON_TYPES.has(contentType) || method.toUpperCase() === 'HEAD') {
      this.pending.push(Promise.resolve(base));
      return;
    }
    this.pending.push(
      res
        .clone()
        .text()
        .then((text) => ({ ...base, body: JSON.parse(text) as unknown }))
        .catch(() => undefined),
    );
  }

  /** Every response recorded so far whose body (if JSON) was read, waiting at most `waitMs` for bodies still arriving. */
  async responses(waitMs = 5_000): Promise<RecordedResponse[]> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), waitMs)));
    const settled = await Promise.all(this.pending.map((p) => Promise.race([p, late])));
    clearTimeout(timer);
    return settled.filter((r): r is RecordedResponse => r !== undefined);
  }
}
