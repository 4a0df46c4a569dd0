import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { fileUploadQuerySchema, isImageMediaType, parseBody, type Principal, type StoredFile } from '@spindle/contracts';
import { FileLibrary } from '@spindle/control-plane';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FileIdParam } from '../http/path-params';
import { AuditTrail } from '../identity/audit-trail';
import { Caller } from '../identity/caller.decorator';
import { claimedTypeOf, readUpload } from '../http/upload-body';

/** A tenant's files: uploaded once by content, read back, deleted once no run refers to them. */
@Controller('v1/files')
export class FilesController {
  constructor(
    private readonly files: FileLibrary,
    private readonly audit: AuditTrail,
  ) {}

  /** The raw body is the file (buffered up to `SPINDLE_MAX_FILE_BYTES`); `201` with what it is, the same id for the same bytes. */
  @Post()
  async upload(@Caller() caller: Principal, @Query() query: unknown, @Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    const { name } = parseBody(fileUploadQuerySchema, query ?? {}, 'query');
    const bytes = await readUpload(req, this.files.maxBytes, () => this.files.tooLarge());
    const file = await this.files.upload({ tenant: caller.tenant, actor: caller.actor, bytes, claimedType: claimedTypeOf(req), name });
    await this.audit.record(caller, req, {
      action: 'file.uploaded',
      target: { kind: 'file', id: file.fileId },
      detail: { mediaType: file.mediaType, bytes: file.bytes, sha256: file.sha256 },
    });
    return reply.status(201).header('location', `/v1/files/${file.fileId}`).send(file);
  }

  @Get(':fileId')
  get(@Caller() caller: Principal, @Param('fileId', FileIdParam) fileId: string): Promise<StoredFile> {
    return this.files.get(caller.tenant, fileId);
  }

  /** The bytes as stored; never sniffed by a browser, and only images shown inline. */
  @Get(':fileId/content')
  async content(@Caller() caller: Principal, @Param('fileId', FileIdParam) fileId: string, @Res() reply: FastifyReply) {
    const { file, bytes } = await this.files.content(caller.tenant, fileId);
    const text = file.mediaType.startsWith('text/') || file.mediaType === 'application/json';
    reply
      .status(200)
      .header('content-type', text ? `${file.mediaType}; charset=utf-8` : file.mediaType)
      .header('content-length', bytes.byteLength)
      .header('etag', `"${file.sha256}"`)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'private, max-age=3600');
    if (!isImageMediaType(file.mediaType))
      reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name ?? file.fileId)}`);
    return reply.send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  /** `409 conflict` while a run refers to it. */
  @Delete(':fileId')
  @HttpCode(204)
  async remove(@Caller() caller: Principal, @Param('fileId', FileIdParam) fileId: string, @Req() req: FastifyRequest): Promise<void> {
    await this.files.delete(caller.tenant, fileId);
    await this.audit.record(caller, req, { action: 'file.deleted', target: { kind: 'file', id: fileId } });
  }
}
