# The README's two commands: `make run` (the main job on the default store) and `make test`.
# Both install the Debian packages they need first.

SWIFT ?= swift

.PHONY: deps build run test bench clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release --product spotlite

run: build
	@scripts/run-default.sh

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

clean:
	rm -rf .build
