"""homeworlds.pixels"""
