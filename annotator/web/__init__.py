"""Web blueprints: auth (login), documents (annotators' work), dashboard (leads)."""
