"""The semantic model: what the program's values are, as each compiler sees them. Rules read it; they never
derive it themselves."""
