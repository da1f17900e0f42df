"""Load rules files: YAML with located values, composition of modules and variants."""
