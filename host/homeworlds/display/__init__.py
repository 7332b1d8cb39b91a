"""homeworlds.display"""
