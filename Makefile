.PHONY: demo test slow bench lint

demo:
	pip install -e . && rolit serve

test:
	pip install -e ".[test]" && python -m pytest -q

slow:
	python -m pytest -q -m slow

bench:
	rolit bench --json

lint:
	ruff check engine vision calibration webui tests
	python -m pytest -q tests/test_style.py
