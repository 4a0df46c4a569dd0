#!/bin/sh
# Container entry: starts the Spindle service named by $SERVICE (one image runs all six).
set -eu

case "${SERVICE:-}" in
  gateway | runner | trace-recorder | checkpoint | approval | dispatcher) ;;
  *)
    echo "spindle: SERVICE must be one of gateway, runner, trace-recorder, checkpoint, approval, dispatcher (got \"${SERVICE:-}\")" >&2
    exit 64
    ;;
esac

# exec: node becomes PID 1 and receives SIGTERM directly (each service shuts down gracefully on it).
exec node "/app/apps/${SERVICE}/dist/main.js" "$@"
