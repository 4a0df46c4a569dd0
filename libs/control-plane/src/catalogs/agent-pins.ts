import type { FieldIssue } from '@spindle/contracts';

/**
 * Which version of a catalog agent a pattern's `{ "ref": … }` entry runs:
 * - `version: 3`: that version, on every run and every resume;
 * - `version: { "parameter": "writer_version" }`: the version the run's parameter names, chosen
 *   when the run starts (the parameter must be declared in the workflow's `parameters`; without a
 *   value it takes the parameter's default, and without a default the latest);
 * - no `version`: the latest at the time the run starts.
 * A run embeds the version it resolved, so a resume never changes it.
 */
export type AgentVersionChoice = { ok: true; version: number | undefined; parameter?: string } | { ok: false; issue: FieldIssue };

/** The workflow's parameters as a pin reads them: the declared schema, and the run's values once there is a run. */
export interface PinParameters {
  readonly schema: unknown;
  /** The run's parameter values (defaults filled in); absent when saving, where a parameter's default stands for it. */
  readonly values?: Record<string, unknown>;
}

/** Pure: the version an entry asks for, or the issue (naming the field) that makes its pin unable to hold. */
export function chooseAgentVersion(entry: { version?: unknown }, field: string, parameters: PinParameters): AgentVersionChoice {
  const asked = entry.version;
  if (asked === undefined) return { ok: true, version: undefined };
  if (isRecord(asked) && typeof asked.parameter === 'string' && Object.keys(asked).length === 1)
    return fromParameter(asked.parameter, `${field}.version`, parameters);
  if (isVersion(asked)) return { ok: true, version: asked };
  return refused(`${field}.version`, `must be a whole number from 1, or { "parameter": "<name>" } (got ${JSON.stringify(asked)})`);
}

function fromParameter(name: string, field: string, parameters: PinParameters): AgentVersionChoice {
  const properties = isRecord(parameters.schema) ? parameters.schema.properties : undefined;
  const declared = isRecord(properties) && Object.hasOwn(properties, name) ? properties[name] : undefined;
  if (!isRecord(declared)) return refused(`${field}.parameter`, `names no parameter the workflow declares ("${name}")`);
  if (declared.type !== undefined && declared.type !== 'integer')
    return refused(`${field}.parameter`, `parameter "${name}" must be declared with "type": "integer" to choose a version`);
  // Own keys only: a parameter named `constructor` must not read the prototype's.
  const value = parameters.values ? (Object.hasOwn(parameters.values, name) ? parameters.values[name] : undefined) : declared.default;
  if (value === undefined) return { ok: true, version: undefined, parameter: name };
  if (!isVersion(value)) return refused(field, `parameter "${name}" is ${JSON.stringify(value)}, not a version (a whole number from 1)`);
  return { ok: true, version: value, parameter: name };
}

const isVersion = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 1;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const refused = (field: string, message: string): AgentVersionChoice => ({ ok: false, issue: { field, message } });
