"""What compiled rules call at run time: built-ins, the RNG, money transfers."""
