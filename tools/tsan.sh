#!/usr/bin/env bash
# The concurrency tests under ThreadSanitizer: tools/sanitize.sh thread (Docs/hardening.md).
#
# Usage: tools/tsan.sh [extra `swift test` arguments, e.g. --filter InterpreterPerThreadTests]
exec "$(dirname "$0")/sanitize.sh" thread "$@"
