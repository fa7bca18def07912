# Two entry points (see README): `make demo` and `make test`. Everything else is a step.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test setup system-deps bench clean

demo: setup
	$(VENV)/bin/annotator demo

# Tests run in one process per core (pytest-xdist; PYTEST_WORKERS=0 for one process): many of
# them wait on a browser, a server or a subprocess, and the others fill that time.
PYTEST_WORKERS ?= auto
PYTEST := $(PY) -m pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

# Lint (ruff, configured in pyproject.toml); the whole suite on SQLite, then every database
# test again on a real PostgreSQL server, both beside a real Label Studio server (installed
# into .venv-labelstudio on first use).
test: setup system-deps
	$(VENV)/bin/ruff check .
	PYTHON=$(PYTHON) bash scripts/with-labelstudio.sh bash -c \
	  '$(PYTEST) && bash scripts/with-postgres.sh $(PYTEST)'

# Bytecode on, whatever the shell says (PYTHONDONTWRITEBYTECODE): with it off, every test
# process and every server or command a test starts compiles the project and re-rewrites
# the test modules' asserts again (about 6 s per process).
test: export PYTHONDONTWRITEBYTECODE =

setup: $(STAMP)

# torch first, pinned to the CPU build that sentence-transformers accepts; a bare `torch`
# requirement would pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Chromium (browser tests) and PostgreSQL (second database backend) from Debian.
system-deps:
	bash scripts/system-deps.sh

# Every benchmark at a small size (benchmarks/run_all.py); run a script alone for full size.
bench: setup
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) .venv-labelstudio build dist *.egg-info
