"""Template packs: the entity and relationship types a graph may hold, from YAML files."""
