import { assertModelTakes, describeAccepts, modelTakesMediaType, modelTakesNoFiles } from './model-media-types';

describe('which media types a model takes', () => {
  it('gives the OpenAI and Claude vision families images and PDFs, other compatible models images, offline models anything', () => {
    for (const model of [
      'openai:gpt-4o-mini',
      'openai:gpt-4.1',
      'openai:gpt-5',
      'anthropic:claude-sonnet-4-5',
      'anthropic:claude-3-5-haiku-latest',
    ]) {
      expect([
        model,
        ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf'].every((t) => modelTakesMediaType(model, t)),
      ]).toEqual([model, true]);
    }
    expect(modelTakesMediaType('compatible:llava', 'image/webp')).toBe(true);
    expect(modelTakesMediaType('compatible:llava', 'application/pdf')).toBe(false);
    expect(modelTakesMediaType('offline:echo', 'application/x-anything')).toBe(true);
    expect(modelTakesMediaType('openai:gpt-4o', 'audio/wav')).toBe(false);
  });

  it('knows the text-only models (refused at save), and leaves an unknown provider to the call', () => {
    expect(['openai:gpt-3.5-turbo', 'openai:o3-mini', 'anthropic:claude-2.1'].map(modelTakesNoFiles)).toEqual([true, true, true]);
    expect(['openai:gpt-4o', 'compatible:m', 'mystery:model'].map(modelTakesNoFiles)).toEqual([false, false, false]);
    expect(modelTakesMediaType('mystery:model', 'image/png')).toBe(false);
    expect(describeAccepts('compatible:m')).toBe('image/png, image/jpeg, image/gif, image/webp');
  });

  it('refuses the first file a model cannot take, naming model, media type and file', () => {
    const file = (mediaType: string, id: string) => ({ mediaType, fileId: `file_${id.repeat(26)}` });
    expect(() => assertModelTakes('compatible:m', [file('image/png', 'a'), file('application/pdf', 'b')])).toThrow(
      expect.objectContaining({
        code: 'attachment_not_supported',
        message: expect.stringMatching(/"compatible:m" does not take application\/pdf attachments \(file file_b+\)/),
      }),
    );
    expect(() => assertModelTakes('offline:echo', [file('application/pdf', 'b')])).not.toThrow();
  });
});
