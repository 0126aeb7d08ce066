# Sourced by the bench scripts (ROOT set): FIXTURES, when not given, is the
# recorded llama-server fixtures beside the checkout (../shared/...) or the
# project's own copy; empty when neither exists.
if [ -z "${FIXTURES:-}" ]; then
	for d in "$ROOT/../shared/fixtures/llama-server" "$ROOT/tests/net/fixtures"; do
		if [ -d "$d" ]; then FIXTURES=$(cd "$d" && pwd); break; fi
	done
fi
: "${FIXTURES:=}"
