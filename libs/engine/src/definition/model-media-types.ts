import { SpindleError } from '@spindle/contracts';

/**
 * Which media types each model takes as attachments, so a file a model cannot read is refused
 * with `attachment_not_supported` before any provider is called (never the provider's own 400).
 * Pure data here, beside the definition rules: the gateway refuses at save what it can know (a
 * static model that takes no files at all), the model port refuses at the call (the media types
 * are only known once a run's files are). The first matching rule wins; ids are `provider:model`.
 */
const IMAGES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
const IMAGES_AND_PDF = [...IMAGES, 'application/pdf'] as const;
const EVERYTHING = '*';

interface MediaRule {
  /** `provider:` plus a model id prefix (`openai:gpt-4o` covers `gpt-4o-mini` and dated snapshots). */
  prefix: string;
  accepts: readonly string[] | typeof EVERYTHING;
}

const MEDIA_RULES: readonly MediaRule[] = [
  // Offline models read every file (offline:echo reports each one), so examples run without a provider.
  { prefix: 'offline:', accepts: EVERYTHING },
  // Text-only models, before the families' rules below.
  { prefix: 'openai:gpt-3.5', accepts: [] },
  { prefix: 'openai:o1-mini', accepts: [] },
  { prefix: 'openai:o3-mini', accepts: [] },
  { prefix: 'anthropic:claude-2', accepts: [] },
  { prefix: 'anthropic:claude-instant', accepts: [] },
  { prefix: 'openai:gpt-4o', accepts: IMAGES_AND_PDF },
  { prefix: 'openai:gpt-4.1', accepts: IMAGES_AND_PDF },
  { prefix: 'openai:gpt-5', accepts: IMAGES_AND_PDF },
  { prefix: 'openai:o', accepts: IMAGES_AND_PDF },
  { prefix: 'anthropic:claude-', accepts: IMAGES_AND_PDF },
  // Other OpenAI models, and whatever an OpenAI-compatible server runs: images, which they mostly take.
  { prefix: 'openai:', accepts: IMAGES },
  { prefix: 'compatible:', accepts: IMAGES },
];

/** The media types `model` takes, `'*'` for any, undefined for a provider the table does not know. */
export function modelMediaTypes(model: string): readonly string[] | typeof EVERYTHING | undefined {
  return MEDIA_RULES.find((rule) => model.startsWith(rule.prefix))?.accepts;
}

/** Whether a static model surely takes no file: what a definition can be refused for at save. */
export function modelTakesNoFiles(model: string): boolean {
  return modelMediaTypes(model)?.length === 0;
}

/** A model the table does not know takes no files: the call is refused rather than sent to fail. */
export function modelTakesMediaType(model: string, mediaType: string): boolean {
  const accepts = modelMediaTypes(model) ?? [];
  return accepts === EVERYTHING || accepts.includes(mediaType.toLowerCase());
}

/** Throws `attachment_not_supported` for the first file `model` cannot take. */
export function assertModelTakes(model: string, files: ReadonlyArray<{ mediaType: string; fileId: string }>): void {
  for (const file of files) {
    if (!modelTakesMediaType(model, file.mediaType)) {
      throw new SpindleError(
        'attachment_not_supported',
        `model "${model}" does not take ${file.mediaType} attachments (file ${file.fileId}); it takes ${describeAccepts(model)}`,
      );
    }
  }
}

export function describeAccepts(model: string): string {
  const accepts = modelMediaTypes(model) ?? [];
  if (accepts === EVERYTHING) return 'any media type';
  return accepts.length ? accepts.join(', ') : 'no attachments';
}
