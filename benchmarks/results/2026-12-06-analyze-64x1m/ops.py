import json,sys
p=json.load(open(sys.argv[1]))
def walk(n,d=0):
    ei=n.get('extra_info',{})
    desc=ei.get('Projections') if n['type'] in('WINDOW',) else (ei.get('Conditions') or ei.get('CTE Name') or ei.get('Table') or ei.get('Groups') or '')
    if n.get('timing',0)>=float(sys.argv[2]) or n['type'] in ('CTE','WINDOW','HASH_JOIN'):
        print('  '*d+f"{n['type']} t={n.get('timing',0):.1f} rows={n.get('intermediate_rows')} {str(desc)[:150]}")
    for ch in n.get('children',[]): walk(ch,d+1)
for ch in p['operator']: walk(ch)
print(p['query']['total_time'], p['query']['cpu_time'], p['system'], p['io'])
