import { isSpindleError, type SpindleError } from '@spindle/contracts';
import { AgentNameParam, NewWorkflowNameParam, RequestIdParam, RunIdParam, WorkflowNameParam } from './path-params';

const refusal = (run: () => unknown): SpindleError => {
  try {
    run();
  } catch (e) {
    if (isSpindleError(e)) return e;
    throw e;
  }
  throw new Error('not refused');
};

describe('path parameter pipes', () => {
  it('pass ids and names that could exist', () => {
    expect(RunIdParam.transform('01M8MZ7GV3CM19TT0MT5MSF778')).toBe('01M8MZ7GV3CM19TT0MT5MSF778');
    expect(RequestIdParam.transform('req_01M8MZ7GV3CM19TT0MT5MSF778')).toBe('req_01M8MZ7GV3CM19TT0MT5MSF778');
    expect(WorkflowNameParam.transform('publish-review')).toBe('publish-review');
    expect(AgentNameParam.transform('Researcher_2')).toBe('Researcher_2');
  });

  it("answer a lookup by a value that cannot exist with the route's own not-found code", () => {
    for (const bad of ['\u0000', 'a.b', 'x'.repeat(65), '', 'a b', 'ü']) {
      expect(refusal(() => RunIdParam.transform(bad)).code).toBe('run_not_found');
      expect(refusal(() => RequestIdParam.transform(bad)).code).toBe('request_not_found');
      expect(refusal(() => WorkflowNameParam.transform(bad)).code).toBe('workflow_not_found');
      expect(refusal(() => AgentNameParam.transform(bad)).code).toBe('not_found');
    }
  });

  it('answer a name to create that is not valid with validation_failed naming the parameter, its value escaped', () => {
    const error = refusal(() => NewWorkflowNameParam.transform('Bad\u0000'));
    expect(error.code).toBe('validation_failed');
    expect(error.issues).toEqual([expect.objectContaining({ field: 'name' })]);
    expect(error.message).toContain('"Bad\\u0000"');
  });
});
