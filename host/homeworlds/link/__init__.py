"""homeworlds.link"""
