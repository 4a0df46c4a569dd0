'use strict';
// Spindle plugin: a demo order service, for agent workflows and for seeing timeouts and retries
// at work. Faults are injectable (read on each call, so a test or an operator can change them):
//   ORDER_LOOKUP_LATENCY_MS     delay before each answer (default 0)
//   ORDER_LOOKUP_FAILURE_RATE   0..1, the share of calls that fail as "temporarily unavailable"
//   order ids starting FAIL-    always fail that way, for a failure you can reproduce
// Each lookup the service answers costs ORDER_LOOKUP_COST_USD (default $0.0001), reported to the
// run (its cost totals and budget count it), and a found order is an `order.looked_up` event.
const { definePlugin, defineTool, PublicError } = require('@spindle/plugin');
const { z } = require('zod');

const orders = [
  {
    id: 'A-1001',
    status: 'delivered',
    customer: 'Ada Lovelace',
    items: [{ sku: 'KB-01', name: 'Mechanical keyboard', qty: 1 }],
    total: 129.0,
    currency: 'EUR',
    placedAt: '2026-11-02T09:14:00Z',
    deliveredAt: '2026-11-05T15:40:00Z',
  },
  {
    id: 'A-1002',
    status: 'shipped',
    customer: 'Alan Turing',
    items: [{ sku: 'MS-07', name: 'Wireless mouse', qty: 2 }],
    total: 59.8,
    currency: 'EUR',
    placedAt: '2026-11-20T18:02:00Z',
    carrier: 'DHL',
    trackingId: 'JD014600006281',
  },
  {
    id: 'A-1003',
    status: 'processing',
    customer: 'Grace Hopper',
    items: [
      { sku: 'MN-27', name: '27" monitor', qty: 1 },
      { sku: 'CB-HD', name: 'HDMI cable', qty: 1 },
    ],
    total: 349.0,
    currency: 'USD',
    placedAt: '2026-11-28T11:30:00Z',
  },
  {
    id: 'A-1004',
    status: 'cancelled',
    customer: 'Edsger Dijkstra',
    items: [{ sku: 'HD-02', name: 'Headphones', qty: 1 }],
    total: 89.9,
    currency: 'EUR',
    placedAt: '2026-10-11T08:45:00Z',
    cancelledAt: '2026-10-11T09:01:00Z',
    reason: 'customer request',
  },
  {
    id: 'A-1005',
    status: 'returned',
    customer: 'Barbara Liskov',
    items: [{ sku: 'DK-11', name: 'USB-C dock', qty: 1 }],
    total: 179.0,
    currency: 'USD',
    placedAt: '2026-09-03T14:20:00Z',
    refundedAt: '2026-09-19T10:00:00Z',
  },
];

function numberFromEnv(name, fallback, min, max) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  // A configuration mistake, not the model's: a plain Error, redacted in the run log, logged in full.
  if (!Number.isFinite(value) || value < min || value > max)
    throw new Error(`${name} must be a number from ${min} to ${max} (got "${raw}")`);
  return value;
}

function delay(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

function unavailable(orderId) {
  // `retryable` is what this plugin's retryOn looks at: a missing order is not worth a retry.
  return new PublicError(`order service temporarily unavailable while looking up ${orderId}`, { retryable: true });
}

const lookupOrder = defineTool({
  description: 'Looks up an order by its id (e.g. "A-1002") and returns its status, items, total and shipping details.',
  input: z.object({ orderId: z.string().min(1).max(64).describe('The order id, e.g. "A-1002"') }),
  timeoutMs: 5_000,
  retry: { attempts: 3, backoffMs: 200, retryOn: (e) => e?.data?.retryable === true },
  async run({ orderId }, { signal, emit, reportUsage }) {
    const latencyMs = numberFromEnv('ORDER_LOOKUP_LATENCY_MS', 0, 0, 600_000);
    const failureRate = numberFromEnv('ORDER_LOOKUP_FAILURE_RATE', 0, 0, 1);
    const costUsd = numberFromEnv('ORDER_LOOKUP_COST_USD', 0.0001, 0, 1);
    if (latencyMs > 0) await delay(latencyMs, signal);
    const id = orderId.trim().toUpperCase();
    if (id.startsWith('FAIL-') || Math.random() < failureRate) throw unavailable(id);
    // The service answered: that lookup is paid for, found or not.
    await reportUsage({ costUsd, units: { lookups: 1 }, label: 'order service lookup' });
    const order = orders.find((o) => o.id === id);
    if (!order) throw new PublicError(`order ${id} not found`);
    await emit('order.looked_up', { orderId: id, status: order.status });
    return structuredClone(order);
  },
});

module.exports = definePlugin({
  name: 'order-lookup',
  version: '1.1.0',
  tools: { lookup_order: lookupOrder },
});
