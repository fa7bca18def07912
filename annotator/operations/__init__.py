"""Work on a whole study that spans stages (the demo project, a schema revision, the data
manager's document table): above the stages it imports, below the web pages and commands
that call it."""
