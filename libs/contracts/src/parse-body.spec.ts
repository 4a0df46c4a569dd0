import { isSpindleError } from './errors';
import { z } from 'zod';
import { parseBody } from './parse-body';

function refusal(run: () => unknown) {
  try {
    run();
  } catch (e) {
    if (isSpindleError(e)) return { code: e.code, issues: e.issues, message: e.message };
    throw e;
  }
  throw new Error('not refused');
}

describe('parseBody', () => {
  const schema = z.strictObject({ nodes: z.array(z.object({ prompt: z.string() })) });

  it('names a field inside an array as the error contract documents it (nodes[2].prompt)', () => {
    const refused = refusal(() => parseBody(schema, { nodes: [{ prompt: 'a' }, { prompt: 'b' }, {}] }));
    expect(refused).toEqual({
      code: 'validation_failed',
      issues: [{ field: 'nodes[2].prompt', message: expect.any(String) }],
      message: expect.stringContaining('invalid request: nodes[2].prompt: '),
    });
  });

  it('puts the request part in front and names unknown fields', () => {
    expect(refusal(() => parseBody(schema, { nodes: [], limit: 1 }, 'query')).issues).toEqual([
      { field: 'query', message: 'unknown field(s): limit' },
    ]);
    expect(refusal(() => parseBody(schema, 'text')).issues).toEqual([{ field: '(body)', message: expect.any(String) }]);
  });
});
