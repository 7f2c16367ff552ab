"""Meter-data sources.

All sources produce one canonical in-memory form, :class:`dpgrid.data.meter.MeterData`: a tidy
table of readings (``meter_id``, ``timestamp``, ``kw``) plus a table of meters
(``meter_id``, ``customer_class``), checked by :func:`dpgrid.data.meter.validate_readings`.
"""

from dpgrid.data.meter import MeterData, MeterDataError, validate_readings

__all__ = ["MeterData", "MeterDataError", "validate_readings"]
