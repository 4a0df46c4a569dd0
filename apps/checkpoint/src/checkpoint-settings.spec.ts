import { parseCheckpointSettings } from './checkpoint-settings';

describe('parseCheckpointSettings', () => {
  it('keeps checkpoints a week unless SPINDLE_CHECKPOINT_TTL_HOURS says otherwise', () => {
    expect(parseCheckpointSettings({})).toEqual({ ttlHours: 168 });
    expect(parseCheckpointSettings({ SPINDLE_CHECKPOINT_TTL_HOURS: '24' })).toEqual({ ttlHours: 24 });
    expect(parseCheckpointSettings({ SPINDLE_CHECKPOINT_TTL_HOURS: '0.5' })).toEqual({ ttlHours: 0.5 });
  });

  it('refuses a TTL that is not a positive number, naming the variable', () => {
    for (const value of ['0', '-1', 'a week']) {
      expect(() => parseCheckpointSettings({ SPINDLE_CHECKPOINT_TTL_HOURS: value })).toThrow(/SPINDLE_CHECKPOINT_TTL_HOURS/);
    }
  });
});
