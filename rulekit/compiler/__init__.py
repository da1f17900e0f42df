"""Check rules and compile them to Python functions, once, before play."""
