'use strict';
// Spindle plugin: a bulk export of a customer's order history, as large as asked for. It is the
// kind of tool whose result is too big for a prompt (200 KB is about 50,000 tokens), for seeing
// an agent's context budget cut it (`context.truncated`) instead of sending it all to the model.
const { definePlugin, defineTool } = require('@spindle/plugin');
const { z } = require('zod');

const statuses = ['delivered', 'shipped', 'processing', 'returned'];

/** Deterministic rows: the same request always exports the same history. */
function exportOrders({ customer, rows }) {
  const orders = Array.from({ length: rows }, (_, i) => ({
    id: `H-${String(100000 + i)}`,
    customer,
    status: statuses[i % statuses.length],
    total: Math.round(((i * 37) % 500) * 100 + 99) / 100,
    note: `Order ${i} for ${customer} was ${statuses[i % statuses.length]} without incident.`,
  }));
  return { customer, count: rows, orders };
}

module.exports = definePlugin({
  name: 'order-export',
  version: '1.0.0',
  tools: {
    export_orders: defineTool({
      description: "Exports a customer's whole order history (one row per order): large, meant for bulk analysis.",
      input: z.object({
        customer: z.string().min(1).max(100).describe('The customer name'),
        rows: z.number().int().min(1).max(20_000).default(1_500).describe('How many orders to export'),
      }),
      timeoutMs: 10_000,
      run: exportOrders,
    }),
  },
});
