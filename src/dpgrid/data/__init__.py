"""Meter-data sources. Import submodules directly (a name exported here would put its module in the code hash
of every job that imports any ``dpgrid.data`` module, :mod:`dpgrid.core.provenance`).

All sources produce one canonical in-memory form, :class:`dpgrid.data.meter.MeterData`: a tidy
table of readings (``meter_id``, ``timestamp``, ``kw``) plus a table of meters
(``meter_id``, ``customer_class``), checked by :func:`dpgrid.data.checks.validate_readings`.
The modules, by concept: docs/DEVELOPING.md ("Data layer").
"""
