import { isJsonObject } from '@spindle/contracts';

/** One field a form can ask for a JSON answer. */
export interface FormField {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean';
  required: boolean;
  title?: string;
  description?: string;
  /** A string field's allowed values (`enum`). */
  options?: string[];
}

const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * The fields of a JSON answer's schema when a form can ask them: an object whose properties are
 * all strings, numbers, integers or booleans. Undefined for any richer schema (nested objects,
 * arrays, unions), which only a JSON editor can answer.
 */
export function formFieldsOf(schema: unknown): FormField[] | undefined {
  if (!isJsonObject(schema) || schema.type !== 'object' || !isJsonObject(schema.properties)) return undefined;
  const { required } = schema;
  if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === 'string'))) return undefined;
  const fields: FormField[] = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isJsonObject(property) || typeof property.type !== 'string' || !PRIMITIVE_TYPES.has(property.type)) return undefined;
    const options = Array.isArray(property.enum) && property.enum.every((v) => typeof v === 'string') ? property.enum : undefined;
    fields.push({
      name,
      type: property.type as FormField['type'],
      required: (required as string[] | undefined)?.includes(name) ?? false,
      ...(typeof property.title === 'string' && { title: property.title }),
      ...(typeof property.description === 'string' && { description: property.description }),
      ...(options && { options }),
    });
  }
  return fields;
}
