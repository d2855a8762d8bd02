# The two documented entry points are `make demo` and `make test`; both set up
# everything they need (virtual environment, release build, install) first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
OUT    ?= results
# pytest workers (pytest-xdist): one per core by default; PYTEST_WORKERS=0 runs the suite in one process
PYTEST_WORKERS ?= auto

.PHONY: demo test check-reports lint fuzz install rust-test py-test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet "maturin>=1.5,<2"

## install: build the Rust core in release mode and install hpcnetsim into .venv
install: $(BIN)/python
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --quiet --extras test

## demo: the main job, under $(OUT)/: the quick variant of every built-in study (the five
## papers) with its report, and a landing page linking them, $(OUT)/index.html; then the cost
## and throughput bounds of the thin-tree family
demo: install
	$(BIN)/hpcnetsim study run all --quick --out $(OUT)
	$(BIN)/hpcnetsim topo compare --out $(OUT)/thin-tree-compare

## check-reports: every report under $(OUT) (written by make demo) rendered in headless
## Chromium: no broken image, empty figure, horizontal overflow, None cell or unit-less axis
check-reports: install
	HPCNETSIM_REPORTS=$(OUT) $(BIN)/python -m pytest -q tests/test_report_rendering.py

## lint: formatting and lints of both languages (rustfmt, clippy with warnings as errors, ruff),
## the type stubs of the extension against the extension, and no placeholder left in the code
lint: install
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(BIN)/ruff check python tests tools benchmarks
	$(BIN)/python tools/check_core_stub.py
	@! grep -rnE 'todo!\(|unimplemented!\(|\bNotImplementedError|\b(TODO|FIXME|XXX)\b' crates python tests tools \
		--include='*.rs' --include='*.py' --include='*.pyi' || { echo "placeholders left (above)"; exit 1; }

## fuzz: FUZZ_CASES (1000) generated cases of every input parser: specs, configs, experiments,
## the five trace formats, the three fabric formats and the command line, each case under a
## memory limit and a time bound; fails on any traceback, abort or hang (docs/reliability.md)
FUZZ_CASES ?= 1000
fuzz: install
	$(BIN)/python tests/fuzzing.py --cases $(FUZZ_CASES)

## test: every Rust and Python test
test: install rust-test py-test

rust-test:
	cargo test --workspace --exclude hpcnetsim-py

py-test:
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal

clean:
	rm -rf $(VENV) target $(OUT)
