import { Controller, Get, Inject } from '@nestjs/common';
import type { OpenApiDocument } from '@spindle/contracts';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import type { GatewayConfig } from '../gateway.config';
import { gatewayOpenApiDocument } from './http-api';

/** `GET /v1/openapi.json`: the API's OpenAPI 3.1 document, built once when the gateway starts. */
@Controller('v1')
export class OpenApiController {
  private readonly document: OpenApiDocument;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.document = gatewayOpenApiDocument(config);
  }

  @Get('openapi.json')
  get(): OpenApiDocument {
    return this.document;
  }
}
