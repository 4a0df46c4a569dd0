import { parseDispatcherConfig } from './dispatcher.config';

describe('parseDispatcherConfig', () => {
  it('reads the health port and the control plane settings the gateway reads too', () => {
    const config = parseDispatcherConfig({
      DISPATCHER_PORT: '9185',
      SPINDLE_DISPATCH_WINDOW: '4',
      SPINDLE_TENANT_DAILY_COST_USD: '2.5',
      SPINDLE_WEBHOOK_ALLOWED_HOSTS: '10.20.0.0/16, hooks.corp',
      SPINDLE_WEBHOOK_RETRY_BASE_MS: '250',
    });
    expect(config).toMatchObject({
      service: 'dispatcher',
      port: 9185,
      projectionWaitMs: 3_000,
      quotas: { maxRunning: 100, startsPerMinute: 600, dailyTokenBudget: null, dailyCostBudgetUsd: 2.5, dispatchWindow: 4 },
      webhooks: { allowHttp: false, retryBaseMs: 250, retryForMs: 86_400_000, timeoutMs: 10_000 },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('refuses what the control plane cannot work with, naming the variable and the service', () => {
    expect(() => parseDispatcherConfig({ SPINDLE_DISPATCH_WINDOW: '0' })).toThrow(/dispatcher: SPINDLE_DISPATCH_WINDOW/);
    expect(() => parseDispatcherConfig({ SPINDLE_WEBHOOK_ALLOW_HTTP: 'yes' })).toThrow(
      /invalid environment for dispatcher: SPINDLE_WEBHOOK_ALLOW_HTTP: must be true or false/,
    );
    expect(() => parseDispatcherConfig({ SPINDLE_WEBHOOK_ALLOWED_HOSTS: 'http://not a host' })).toThrow(/SPINDLE_WEBHOOK_ALLOWED_HOSTS/);
    expect(() => parseDispatcherConfig({ SPINDLE_FILE_MEDIA_TYPES: 'image/png, image/svg+xml' })).toThrow(/SPINDLE_FILE_MEDIA_TYPES/);
    expect(() => parseDispatcherConfig({ SPINDLE_UNREFERENCED_FILE_HOURS: '-1' })).toThrow(/SPINDLE_UNREFERENCED_FILE_HOURS/);
  });

  it('reads the file limits: every known type by default, a grace in hours (fractions allowed)', () => {
    const defaults = parseDispatcherConfig({}).files;
    expect(defaults.maxBytes).toBe(20 * 1_048_576);
    expect([...defaults.mediaTypes]).toContain('application/pdf');
    expect(defaults.unreferencedMs).toBe(24 * 3_600_000);
    const set = parseDispatcherConfig({
      SPINDLE_MAX_FILE_BYTES: '1024',
      SPINDLE_FILE_MEDIA_TYPES: 'Image/PNG, text/plain',
      SPINDLE_UNREFERENCED_FILE_HOURS: '0.5',
    }).files;
    expect({ ...set, mediaTypes: [...set.mediaTypes] }).toEqual({
      maxBytes: 1024,
      mediaTypes: ['image/png', 'text/plain'],
      unreferencedMs: 1_800_000,
    });
  });
});
