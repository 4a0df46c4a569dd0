import { signWebhook, verifyWebhookSignature } from './webhook-signature';

describe('webhook signatures', () => {
  it('verifies its own signature of the raw body within the tolerance, and nothing else', () => {
    const body = '{"id":"evt_1","type":"run.completed"}';
    const header = signWebhook('whsec_x', body, 1_000);
    expect(verifyWebhookSignature('whsec_x', body, header, 1_100)).toBe(true);
    expect(verifyWebhookSignature('whsec_x', `${body} `, header, 1_100)).toBe(false);
    expect(verifyWebhookSignature('whsec_y', body, header, 1_100)).toBe(false);
    expect(verifyWebhookSignature('whsec_x', body, header, 2_000)).toBe(false);
    expect(verifyWebhookSignature('whsec_x', body, 't=1000,v1=zz', 1_000)).toBe(false);
  });
});
