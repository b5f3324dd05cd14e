"""The ``divaeval meta`` analyses, one module each: :mod:`.power` (discriminative power),
:mod:`.correlation`, :mod:`.intuitiveness`, :mod:`.unanimity`, :mod:`.agreement`,
:mod:`.degradation`, :mod:`.sensitivity`, :mod:`.axioms`, :mod:`.ties`. Their public
functions are reached as ``divaeval.<name>`` (or ``divaeval.api.<name>``)."""
