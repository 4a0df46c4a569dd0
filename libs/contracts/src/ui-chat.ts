import { z } from 'zod';

/** The ids a chat may have: what `useChat` generates, or an application's own. */
export const CHAT_ID_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * What the AI SDK's default chat transport POSTs: the chat's id and its messages (UI messages,
 * each a list of parts). Unknown fields pass: the SDK adds to them.
 */
export const uiChatRequestSchema = z.looseObject({
  id: z.string().regex(CHAT_ID_PATTERN, 'a chat id: 1-100 letters, digits, _ or -'),
  messages: z
    .array(
      z.looseObject({
        id: z.string().max(256),
        role: z.enum(['system', 'user', 'assistant']),
        parts: z.array(z.looseObject({ type: z.string().max(100) })).max(1_000),
      }),
    )
    .min(1)
    .max(10_000),
  trigger: z.string().max(64).optional(),
  messageId: z.string().max(256).optional(),
});
export type UiChatRequest = z.infer<typeof uiChatRequestSchema>;
