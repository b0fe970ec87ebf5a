"""A whole number of an input by Python's ``int()`` (scipy's ``Mishra10``,
``x1, x2 = int(x[0]), int(x[1])``): refused in one line naming int(), not float()."""


def truncated(x):
    return (int(x[0]) + int(x[1]) - int(x[0]) * int(x[1])) ** 2.0
