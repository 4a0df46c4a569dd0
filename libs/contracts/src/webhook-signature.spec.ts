import { createHmac } from 'node:crypto';
import { checkWebhookSignature, signWebhook, verifyWebhookSignature } from './webhook-signature';

describe('webhook signatures', () => {
  const body = '{"id":"whd_1","type":"run.completed"}';

  it('is the HMAC-SHA256 of "<t>.<body>" that node:crypto computes, so any receiver can check it', () => {
    const mac = createHmac('sha256', 'whsec_x').update(`1000.${body}`).digest('hex');
    expect(signWebhook('whsec_x', body, 1_000)).toBe(`t=1000,v1=${mac}`);
    const unicode = '{"text":"Grüße, 世界 😀"}';
    expect(signWebhook('whsec_ü', unicode, 7)).toBe(`t=7,v1=${createHmac('sha256', 'whsec_ü').update(`7.${unicode}`).digest('hex')}`);
  });

  it('accepts its own signature within the tolerance, and refuses another body, secret or time', () => {
    const header = signWebhook('whsec_x', body, 1_000);
    expect(checkWebhookSignature('whsec_x', body, header, 1_100)).toEqual({ ok: true, signedAt: 1_000 });
    expect(verifyWebhookSignature('whsec_x', body, header, 700)).toBe(true);
    expect(checkWebhookSignature('whsec_x', `${body} `, header, 1_100)).toEqual({ ok: false, reason: 'mismatch' });
    expect(checkWebhookSignature('whsec_y', body, header, 1_100)).toEqual({ ok: false, reason: 'mismatch' });
    expect(checkWebhookSignature('whsec_x', body, header, 1_301)).toEqual({ ok: false, reason: 'outside_tolerance' });
    expect(checkWebhookSignature('whsec_x', body, header, 1_010, 5)).toEqual({ ok: false, reason: 'outside_tolerance' });
  });

  it('says a header is missing or malformed rather than throwing', () => {
    expect(checkWebhookSignature('whsec_x', body, undefined, 1_000)).toEqual({ ok: false, reason: 'missing' });
    expect(checkWebhookSignature('whsec_x', body, '', 1_000)).toEqual({ ok: false, reason: 'missing' });
    for (const header of [
      't=1000,v1=zz',
      't=1000',
      'v1=' + 'a'.repeat(64),
      't=-5,v1=' + 'a'.repeat(64),
      't=1e3,v1=' + 'a'.repeat(64),
      'garbage',
    ])
      expect(checkWebhookSignature('whsec_x', body, header, 1_000)).toEqual({ ok: false, reason: 'malformed' });
    const signed = signWebhook('whsec_x', body, 1_000);
    expect(checkWebhookSignature('whsec_x', body, [signed, signed], 1_000)).toEqual({ ok: false, reason: 'malformed' });
  });
});
