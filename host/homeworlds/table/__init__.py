"""homeworlds.table"""
