"""Sub-commands of the ``homeworlds`` command line, one module each."""
