"""The platform's query language, shared by search, counts and the filtered stream:
parser (text → AST, with the platform's validation texts), matcher (AST → does this post match),
and the rule index (many rules, one post)."""
