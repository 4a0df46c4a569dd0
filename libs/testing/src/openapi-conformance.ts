import { ajvFieldIssues, describeIssues } from '@spindle/contracts';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** One response a test received from the gateway, as the conformance check needs it. */
export interface RecordedResponse {
  method: string;
  /** The request path, without the query. */
  path: string;
  status: number;
  /** The media type, without parameters (`application/json`). */
  contentType: string | null;
  /** The parsed JSON body (JSON media types only). */
  body?: unknown;
}

export interface ConformanceMismatch {
  /** `operationId` when one matched, else `METHOD /path`. */
  operation: string;
  status: number;
  error: string;
}

interface MediaObject {
  schema?: { $ref?: string };
}
interface OperationObject {
  operationId: string;
  responses: Record<string, { content?: Record<string, MediaObject> }>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: unknown;
}

const DOC_ID = 'openapi';
const PROBLEM = 'application/problem+json';

/**
 * Checks responses against an OpenAPI 3.1 document (JSON Schema 2020-12 via Ajv): the operation
 * (method and path template), the status (`default` for refusals), the media type and the body.
 * Paths outside the document (health, console files) are not its business and are skipped.
 */
export class OpenApiConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp; literals: number }>;

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOC_ID, components: document.components });
    this.templates = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
        literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
      }))
      // The most specific template first: `/v1/openapi.json` before any `/v1/{x}`.
      .sort((a, b) => b.literals - a.literals);
  }

  mismatchesOf(responses: readonly RecordedResponse[]): ConformanceMismatch[] {
    return responses.flatMap((r) => {
      const error = this.check(r);
      return error ? [error] : [];
    });
  }

  private check(r: RecordedResponse): ConformanceMismatch | undefined {
    const template = this.templates.find((t) => t.pattern.test(r.path))?.template;
    // CORS preflights are the origin guard's answer on every path, not an operation of the API.
    if (template === undefined || r.method === 'OPTIONS') return undefined;
    const method = r.method === 'HEAD' ? 'get' : r.method.toLowerCase();
    const op = this.document.paths[template][method];
    const name = op?.operationId ?? `${r.method} ${template}`;
    const fail = (error: string): ConformanceMismatch => ({ operation: name, status: r.status, error });
    // A method the path does not have is refused, and the refusal is a problem like any other.
    const response = op ? (op.responses[String(r.status)] ?? (r.status >= 400 ? op.responses.default : undefined)) : undefined;
    if (!response) {
      if (r.status >= 400 && r.contentType === PROBLEM) return this.validate('Problem', r.body, fail);
      return fail(op ? 'no response documented for this status' : 'no operation documented for this method');
    }
    if (r.method === 'HEAD' || !response.content) return undefined;
    if (r.contentType === null) return r.status === 204 ? undefined : fail('no content type');
    const media = response.content[r.contentType];
    if (!media) return fail(`content type ${r.contentType} is not documented (${Object.keys(response.content).join(', ')})`);
    const ref = media.schema?.$ref;
    if (ref === undefined || r.body === undefined) return undefined;
    return this.validate(ref.slice('#/components/schemas/'.length), r.body, fail);
  }

  private validate(component: string, body: unknown, fail: (error: string) => ConformanceMismatch): ConformanceMismatch | undefined {
    let validate = this.validators.get(component);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${component}` });
      this.validators.set(component, validate);
    }
    if (validate(body)) return undefined;
    const first = validate.errors?.[0];
    const where = describeIssues(ajvFieldIssues(validate.errors?.slice(0, 1) ?? [], { whole: '(body)' }));
    return fail(`${component}: ${where} ${JSON.stringify(first?.params ?? {})}`);
  }
}

/** The mismatches as one readable failure. */
export function conformanceReport(mismatches: readonly ConformanceMismatch[]): string {
  const lines = mismatches.slice(0, 50).map((m) => `  ${m.operation} ${m.status}: ${m.error}`);
  const more = mismatches.length > 50 ? [`  … and ${mismatches.length - 50} more`] : [];
  return [`${mismatches.length} response(s) do not match /v1/openapi.json:`, ...lines, ...more].join('\n');
}
