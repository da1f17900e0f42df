# One command sets everything up and runs the main job; one runs the tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow lint typecheck check bench deadcode clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,test]'
	touch $(STAMP)

## demo: install, then bots play a complete game of El Capitan and show the standings
demo: $(STAMP)
	$(BIN)/rulekit play el_capitan --players 3 --seed 1

## test: install, then lint, type-check and run the whole test suite (CI runs this)
test: $(STAMP)
	$(BIN)/ruff check rulekit tests benchmarks
	$(BIN)/ruff format --check rulekit tests benchmarks
	$(BIN)/mypy
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest -q -m 'not slow' -n auto

## test-slow: the long runs (verify sweeps, fuzzing, all combinations); CI runs them as a second step
test-slow: $(STAMP)
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest -q -m slow -n auto

lint: $(STAMP)
	$(BIN)/ruff check rulekit tests benchmarks
	$(BIN)/ruff format --check rulekit tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

## bench: every bundled ruleset and player count, each figure against the committed baseline
bench: $(STAMP)
	$(BIN)/rulekit bench --all --compare benchmarks/baseline.json

## deadcode: by hand, not in CI: vulture lists unused code (names it cannot follow: tests/deadcode_whitelist.py)
deadcode: $(STAMP)
	$(BIN)/python -m pip install --quiet vulture==2.16
	$(BIN)/vulture rulekit tests tests/deadcode_whitelist.py --min-confidence 60 \
		--ignore-decorators "@_register,@register" --ignore-names "_expr_*,_stmt_*"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build *.egg-info
