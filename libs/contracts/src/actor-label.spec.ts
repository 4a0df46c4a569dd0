import { actorLabel } from './actor-label';

describe('actorLabel', () => {
  it('names a key, a person and Spindle itself by name, and the person a key acted for', () => {
    expect(actorLabel({ kind: 'key', id: 'key_1', name: 'ci bot' })).toBe('ci bot');
    expect(actorLabel({ kind: 'key', id: 'key_1', name: 'ci bot', onBehalfOf: 'ada' })).toBe('ci bot on behalf of ada');
    expect(actorLabel({ kind: 'user', id: 'u-7', name: '' })).toBe('u-7');
    expect(actorLabel({ kind: 'system', id: 'timeout', name: 'request timeout' })).toBe('request timeout');
  });

  it('reads what logs before identity recorded (a string), and nobody', () => {
    expect(actorLabel('ada')).toBe('ada');
    expect(actorLabel(null)).toBe('');
    expect(actorLabel(undefined)).toBe('');
  });
});
