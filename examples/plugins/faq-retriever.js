'use strict';
// Spindle plugin: a retriever a `retrieve` node reaches by naming it as its knowledge base
// ("knowledgeBase": "faq"). It scores a fixed FAQ by shared words; a real one would ask a search
// service through ctx.fetch (the runner's egress guard). The runner sorts, applies minScore, cuts to
// topK and counts tokens; the chunks are recorded in `retrieval.completed` like a knowledge base's.
const { definePlugin, defineRetriever } = require('@spindle/plugin');

const faq = [
  { id: 'faq-returns', text: 'Returns are free within 30 days; print the label from your order page.' },
  { id: 'faq-shipping', text: 'Standard shipping takes 2-4 working days; express arrives the next working day.' },
  { id: 'faq-warranty', text: 'Every device has a two-year warranty covering manufacturing faults.' },
];

const words = (text) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

module.exports = definePlugin({
  name: 'faq-retriever',
  version: '1.0.0',
  retrievers: {
    faq: defineRetriever({
      description: 'The shop FAQ, by shared words',
      timeoutMs: 2_000,
      retrieve({ query }) {
        const asked = words(query);
        return faq.map((entry) => {
          const have = words(entry.text);
          const shared = [...asked].filter((w) => have.has(w)).length;
          return { ...entry, source: 'faq', score: asked.size ? shared / asked.size : 0 };
        });
      },
    }),
  },
});
