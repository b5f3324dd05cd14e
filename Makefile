# divaeval developer tasks. `make install` sets everything up and runs the main job on
# sample_data/; `make test` runs the test suite.
PYTHON ?= python3

.PHONY: install dev test lint bench clean

# editable_mode=compat: the checkout on sys.path through a .pth line, not setuptools' import
# finder, whose start-up cost (20 ms, pathlib and importlib.resources) every divaeval process
# would pay
EDITABLE = --config-settings editable_mode=compat
# bytecode for divaeval, as pip writes it for a regular install but not for an editable one:
# without it (and with PYTHONDONTWRITEBYTECODE set) every divaeval process compiles its modules
# again: 0.11 s more than the 0.26 s the main job takes on sample_data
COMPILE = $(PYTHON) -m compileall -q divaeval

install:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check $(EDITABLE) -e .
	$(COMPILE)
	$(PYTHON) -m divaeval sample_data/run.txt sample_data/qrels.txt -m rbu -m alpha-ndcg

test: dev
	$(PYTHON) -m pytest -q -n auto --dist loadgroup tests  # loadgroup: test_cluster.py starts one Dask cluster

# the test, lint, plot and documentation tools (the extras test, plot and docs); make test and
# make lint install them
dev:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check $(EDITABLE) -e ".[test,plot,docs]"
	$(COMPILE)

# the documentation site is built into a temporary folder: --strict fails on a broken link, a
# missing page or a generated reference that cannot be written (docs/hooks/reference.py)
lint: dev
	$(PYTHON) -m ruff check divaeval tests bench docs/hooks
	$(PYTHON) -m ruff format --check divaeval tests bench docs/hooks
	$(PYTHON) -m mypy
	site=$$(mktemp -d) && NO_MKDOCS_2_WARNING=1 $(PYTHON) -m mkdocs build --strict \
		--site-dir "$$site"; status=$$?; rm -rf "$$site"; exit $$status

# medians of REPEAT runs; NDEVAL=/path/to/ndeval and TREC_EVAL=/path/to/trec_eval add the C
# tools, DIVAEVAL_BENCH_LARGE=1 the 100M-line run, BENCH_ARGS="--only scale" one part; every
# command runs on CPU 0 unless BENCH_ARGS="--cores all" (see bench/run_all.py)
REPEAT ?= 5
BENCH_ARGS ?=
bench:
	$(PYTHON) bench/run_all.py --repeat $(REPEAT) $(BENCH_ARGS)

clean:
	rm -rf build dist site *.egg-info .pytest_cache .hypothesis .ruff_cache .mypy_cache bench/out
