/** Nest injection tokens for the infrastructure every service shares. */
export const SERVICE_CONFIG = Symbol('SERVICE_CONFIG');
export const BUS = Symbol('BUS');
export const LOGGER = Symbol('LOGGER');
export const METRICS = Symbol('METRICS');
export const READINESS = Symbol('READINESS');
export const STREAM_GUARD = Symbol('STREAM_GUARD');
