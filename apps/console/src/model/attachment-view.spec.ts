import type { FileRef } from '@spindle/contracts';
import { describe, expect, it } from 'vitest';
import { attachmentView, byteSize, MAX_THUMBNAIL_BYTES } from './attachment-view';

const file = (mediaType: string, bytes: number, name?: string): FileRef => ({
  type: 'file',
  fileId: `file_${'a'.repeat(26)}`,
  mediaType,
  bytes,
  sha256: 'a'.repeat(64),
  ...(name ? { name } : {}),
});

describe('attachmentView', () => {
  it('draws raster images as thumbnails and everything else as a download link', () => {
    expect(attachmentView(file('image/png', 68)).display).toBe('thumbnail');
    expect(attachmentView(file('IMAGE/JPEG', 2048)).display).toBe('thumbnail');
    expect(attachmentView(file('image/webp', 10)).display).toBe('thumbnail');
    expect(attachmentView(file('application/pdf', 900, 'report.pdf')).display).toBe('link');
    // An SVG is a document (it may script): a link, never inlined.
    expect(attachmentView(file('image/svg+xml', 300)).display).toBe('link');
  });

  it('links an image too large for a thumbnail', () => {
    expect(attachmentView(file('image/png', MAX_THUMBNAIL_BYTES)).display).toBe('thumbnail');
    expect(attachmentView(file('image/png', MAX_THUMBNAIL_BYTES + 1)).display).toBe('link');
  });

  it('labels a file by its name (else its id), with media type, size and where its bytes are', () => {
    expect(attachmentView(file('application/pdf', 1536, 'report.pdf'))).toEqual({
      display: 'link',
      fileId: `file_${'a'.repeat(26)}`,
      label: 'report.pdf',
      mediaType: 'application/pdf',
      size: '1.5 KB',
      contentPath: `/v1/files/file_${'a'.repeat(26)}/content`,
    });
    expect(attachmentView(file('image/png', 68)).label).toBe(`file_${'a'.repeat(26)}`);
  });

  it('writes sizes in binary multiples', () => {
    expect([0, 1023, 1024, 5 * 1024 * 1024, 3 * 1024 ** 4].map(byteSize)).toEqual(['0 B', '1023 B', '1.0 KB', '5.0 MB', '3.0 TB']);
  });
});
