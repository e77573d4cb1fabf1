"""The table page and the ``rolit`` command (Flask); the page arrives with the table-page issue."""
