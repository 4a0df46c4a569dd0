import type { FileRef } from '@spindle/contracts';

/** Media types drawn as an `<img>` thumbnail: raster images only (an SVG is a document that may script). */
const THUMBNAIL_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** Larger images get a link instead: a conversation view should not pull megabytes per message. */
export const MAX_THUMBNAIL_BYTES = 5 * 1024 * 1024;

/** How a file a model call sent is shown: a thumbnail, or a link to download it, with its type and size. */
export interface AttachmentView {
  display: 'thumbnail' | 'link';
  fileId: string;
  /** Its name, or its id when it was uploaded without one. */
  label: string;
  mediaType: string;
  size: string;
  /** Where the gateway serves its bytes (the caller's credential decides whether it may). */
  contentPath: string;
}

export function attachmentView(file: FileRef): AttachmentView {
  const thumbnail = THUMBNAIL_TYPES.has(file.mediaType.toLowerCase()) && file.bytes <= MAX_THUMBNAIL_BYTES;
  return {
    display: thumbnail ? 'thumbnail' : 'link',
    fileId: file.fileId,
    label: file.name ?? file.fileId,
    mediaType: file.mediaType,
    size: byteSize(file.bytes),
    contentPath: `/v1/files/${encodeURIComponent(file.fileId)}/content`,
  };
}

/** `68 B`, `1.5 KB`, `12.0 MB`: binary multiples, one decimal above bytes. */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
