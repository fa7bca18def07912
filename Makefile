# Two entry points (see README): `make demo` and `make test`. Everything else is a step.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test setup system-deps bench clean

# Every step says what it does and how long it usually takes (times measured on a 2-core
# machine: docs/benchmarks.md, "How long things take"); long steps print a line at least every 20 s
# (scripts/heartbeat.sh).
BEAT := bash scripts/heartbeat.sh

demo: setup
	@echo "==> annotator demo: creates the demo projects (first time: about 3 min, pre-highlighting"
	@echo "    shows its progress; later runs reuse them), then serves http://127.0.0.1:5000/ until Ctrl-C"
	$(VENV)/bin/annotator demo

# Tests run in one process per core (pytest-xdist; PYTEST_WORKERS=0 for one process): many of
# them wait on a browser, a server or a subprocess, and the others fill that time.
PYTEST_WORKERS ?= auto
PYTEST := $(PY) -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

# Lint (ruff, configured in pyproject.toml); the whole suite on SQLite, then every database
# test again on a real PostgreSQL server, both beside a real Label Studio server (installed
# into .venv-labelstudio on first use).
test: setup system-deps
	@echo "==> ruff check . (a few seconds)"
	$(VENV)/bin/ruff check .
	@echo "==> the whole suite: Label Studio's first start (about 3.5 min), the SQLite pass, then"
	@echo "    the PostgreSQL pass; pytest prints a dot per test (the latest CI run of make test"
	@echo "    took 975 s in all, 2026-11-28)"
	PYTHON=$(PYTHON) bash scripts/with-labelstudio.sh bash -c \
	  'echo "==> SQLite pass" && $(PYTEST) && echo "==> PostgreSQL pass (database tests again)" \
	   && bash scripts/with-postgres.sh $(PYTEST)'

# Bytecode on, whatever the shell says (PYTHONDONTWRITEBYTECODE): with it off, every test
# process and every server or command a test starts compiles the project and re-rewrites
# the test modules' asserts again (about 6 s per process).
test: export PYTHONDONTWRITEBYTECODE =

setup: $(STAMP)

# torch first, pinned to the CPU build that sentence-transformers accepts; a bare `torch`
# requirement would pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	@echo "==> make setup: $(VENV) with torch (CPU build) and the project (once; about 13 min)"
	@$(BEAT) "creating the virtual environment $(VENV)" "about 20 s" -- $(PYTHON) -m venv $(VENV)
	@$(BEAT) "upgrading pip" "about 10 s" -- $(PY) -m pip install --quiet --upgrade pip
	@$(BEAT) "installing torch 2.13.0, CPU build" "about 4 min" -- \
	  $(PY) -m pip install --quiet torch==2.13.0
	@$(BEAT) "installing the project with its test tools (.[test])" "about 9 min" -- \
	  $(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Chromium (browser tests) and PostgreSQL (second database backend) from Debian.
system-deps:
	@echo "==> Chromium and PostgreSQL from Debian (nothing to do when present; else apt-get shows its progress)"
	bash scripts/system-deps.sh

# Every benchmark at a small size (benchmarks/run_all.py); run a script alone for full size.
bench: setup
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) .venv-labelstudio build dist *.egg-info
