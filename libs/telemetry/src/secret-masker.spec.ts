import { maskSecretFields, SecretMasker, SECRET_MASK } from './secret-masker';

describe('SecretMasker', () => {
  const masker = new SecretMasker({ patterns: ['ACME-[0-9]{6}'], literals: ['hunter2hunter2', 'short', undefined] });

  it.each([
    ['an OpenAI key', 'key sk-proj-abcdefghijklmnopqrstuvwxyz123456 here', `key ${SECRET_MASK} here`],
    ['an Anthropic key', 'sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA', SECRET_MASK],
    ['a bearer token, not the word', 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdef', `Authorization: Bearer ${SECRET_MASK}`],
    ['the secret of a Spindle key, not its id', `spk_abcdefghij012345_${'x'.repeat(43)}`, `spk_abcdefghij012345_${SECRET_MASK}`],
    ['an AWS key id', 'AKIAIOSFODNN7EXAMPLE', SECRET_MASK],
    ['a GitHub token', `ghp_${'a'.repeat(36)}`, SECRET_MASK],
    ['an operator pattern', 'ticket ACME-123456 done', `ticket ${SECRET_MASK} done`],
    ['a known secret value', 'password is hunter2hunter2!', `password is ${SECRET_MASK}!`],
  ])('masks %s', (_, text, masked) => {
    expect(masker.maskText(text)).toBe(masked);
  });

  it('leaves ordinary text alone, a short known value included', () => {
    for (const text of ['the sk-ip plan', 'Bearer of bad news', 'short and sweet', 'ACME-12', 'spk_abcdefghij012345 (a key id)']) {
      expect(masker.maskText(text)).toBe(text);
    }
  });

  it('keeps JSON valid when an operator pattern would reach across a value', () => {
    const greedy = new SecretMasker({ patterns: ['secret.*'] });
    const json = JSON.stringify({ a: 'secret one', b: 'plain', c: ['secret two'] });
    expect(JSON.parse(greedy.maskJsonText(json))).toEqual({ a: SECRET_MASK, b: 'plain', c: [SECRET_MASK] });
    const clean = JSON.stringify({ a: 'plain' });
    expect(greedy.maskJsonText(clean)).toBe(clean);
  });

  it('refuses a pattern that is not RE2 or is too long, naming it', () => {
    expect(() => new SecretMasker({ patterns: ['(?<=x)y'] })).toThrow(/secret pattern 0 is not an RE2 pattern/);
    expect(() => new SecretMasker({ patterns: ['ok', 'a'.repeat(300)] })).toThrow(/secret pattern 1 must be a string of 1 to 256/);
  });
});

describe('maskSecretFields', () => {
  it('masks the named fields at any depth and returns the same value when there are none', () => {
    const value = { user: 'ada', password: 'p4ss', nested: [{ apiKey: { deep: 1 }, keep: 'x' }], __proto__field: 1 };
    expect(maskSecretFields(value, new Set(['password', 'apiKey']))).toEqual({
      user: 'ada',
      password: SECRET_MASK,
      nested: [{ apiKey: SECRET_MASK, keep: 'x' }],
      __proto__field: 1,
    });
    const clean = { user: 'ada' };
    expect(maskSecretFields(clean, new Set(['password']))).toBe(clean);
  });

  it('keeps a `__proto__` key a key', () => {
    const value = JSON.parse('{"__proto__": {"password": "p"}, "x": 1}') as Record<string, unknown>;
    const masked = maskSecretFields(value, new Set(['password']));
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(masked, '__proto__')?.value).toEqual({ password: SECRET_MASK });
  });
});
