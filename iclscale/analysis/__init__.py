"""Analysis: reads the result store, fits exponents, sets them beside the theory, renders reports.

Never trains and never imports torch.
"""
