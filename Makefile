# Shortcuts for the project's scripts (README.md documents the scripts themselves).
.PHONY: setup test bench host-up host-down

setup:
	./scripts/setup.sh

test:
	./scripts/test.sh

bench:
	./scripts/bench.sh

host-up:
	./scripts/test-host.sh up

host-down:
	./scripts/test-host.sh down
