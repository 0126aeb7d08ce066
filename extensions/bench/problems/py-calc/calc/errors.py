class CalcError(Exception):
    """Any error of the calculator: syntax, unknown names, arithmetic."""
