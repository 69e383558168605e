-- params: none
BEGIN IMMEDIATE
