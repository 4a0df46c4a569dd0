import { describe, expect, it } from 'vitest';
import { randomToken, s256Challenge } from './pkce';

describe('PKCE', () => {
  it('derives the S256 challenge of RFC 7636, appendix B', async () => {
    await expect(s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).resolves.toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('makes verifiers of 43 unreserved characters, different every time', () => {
    const tokens = Array.from({ length: 50 }, () => randomToken());
    for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});
